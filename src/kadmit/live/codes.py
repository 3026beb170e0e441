"""Diagnostic codes of reading a live cluster through kubectl (KAD030-KAD049)."""

from __future__ import annotations

from kadmit.diagnostics import register

KAD030 = register(
    "KAD030", "kubectl not found", "error",
    "`--cluster` (and `kadmit snapshot`, and `kubectl kadmit` without paths) reads the cluster through "
    "`kubectl`, so that the kubeconfig's authentication (exec plugins, OIDC, cloud credentials) works as "
    "it does for kubectl itself; no `kubectl` program was found on PATH, or it could not be run.")
KAD031 = register(
    "KAD031", "unusable kubeconfig or context", "error",
    "kubectl could not use the kubeconfig: the context named by `--context` is not in it, it has no "
    "current context, or the file can't be read or parsed. Nothing was read from any cluster.")
KAD032 = register(
    "KAD032", "cluster unreachable", "error",
    "kubectl could not reach the context's API server: the connection was refused or timed out, the "
    "host name did not resolve, or TLS failed (a certificate the kubeconfig does not trust). Nothing was "
    "read.")
KAD033 = register(
    "KAD033", "not authenticated", "error",
    "The API server refused the kubeconfig's credentials (401 Unauthorized), or the credential plugin "
    "the kubeconfig names failed. Nothing was read.")
KAD034 = register(
    "KAD034", "kind not listed", "warning",
    "A kind kadmit reads could not be listed from the cluster, in every namespace or in some (the "
    "message names them): the user may not `list` it there (403 Forbidden), the server failed, or it "
    "serves the kind only in an API version kadmit doesn't read. Everything else was read; every answer "
    "rests on the state without those objects (a snapshot file keeps this in its header, so reading "
    "it again says so too).")
KAD035 = register(
    "KAD035", "nothing listed", "error",
    "Discovery answered, but not one kind kadmit reads could be listed (each failed: see the KAD034 "
    "warnings), so there is no cluster state to read.")
KAD036 = register(
    "KAD036", "Kueue not served", "warning",
    "The cluster serves none of Kueue's kinds (`kueue.x-k8s.io`): Kueue is not installed there, so no "
    "workload is admitted by it. The jobs are read as kadmit reads them without Kueue's queues.")
KAD037 = register(
    "KAD037", "Kueue's configuration not found", "warning",
    "No ConfigMap in `kueue-system` holds Kueue's Configuration (`controller_manager_config.yaml`), so "
    "kadmit assumes the Configuration Kueue v0.17.0 installs (its integrations, no fair sharing). When "
    "Kueue runs with another configuration, give it as a file beside `--cluster`.")
KAD038 = register(
    "KAD038", "kubectl failed", "error",
    "kubectl failed in a way kadmit can't attribute to the cluster (a kubectl too old for a flag kadmit "
    "passes, output kadmit can't read, a crash); its own message is shown.")
KAD039 = register(
    "KAD039", "cluster read stopped", "error",
    "kadmit stopped reading a kind from the cluster (the message names it and where: every namespace or "
    "one): the API server (or kubectl) sent more than `--max-file-size` allows for one kind's listing "
    "(64 MiB by default, as for a file), sent no complete answer within the request timeout (60 s), "
    "closed the connection mid-answer, or stopped answering after discovery had answered (a timeout, a "
    "refused or reset connection). Half a listing is no state to decide on, so nothing is decided; a "
    "larger `--max-file-size` reads a larger cluster, and a stall is worth a retry.")
