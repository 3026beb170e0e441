"""Reviewing policy changes: policy unit tests (`kadmit test`) and semantic diffs (`kadmit diff`)."""
