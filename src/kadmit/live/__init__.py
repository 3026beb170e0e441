"""Reading a live cluster through kubectl (`read`: the snapshot text `kadmit snapshot` writes and
`--cluster` reads as a source) and a snapshot's header read back (`snapshot.replay`)."""
