"""`python -m kadmit.validate > docs/codes.md`: print the code table."""

from kadmit.validate.codetable import render_code_table

print(render_code_table(), end="")
