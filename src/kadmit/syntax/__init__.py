"""The `.kad` language front end (owned by the syntax stage; the only importer of lark)."""
