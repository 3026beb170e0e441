"""The Kueue / Kubernetes manifest front end."""
