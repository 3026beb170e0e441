"""The Kueue release whose decisions kadmit's answers follow (`kadmit --version` says it); the
Kueue oracle (tools/kueue-oracle) runs that release's own code, pinned in its go.mod."""

KUEUE_VERSION = "v0.17.0"
