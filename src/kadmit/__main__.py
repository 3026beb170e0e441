"""`python -m kadmit`, and the `kadmit` and `kubectl-kadmit` executables: the command line
(`kadmit.cli`), loaded with the cyclic garbage collector held off."""

import gc


def _cli():
    """`kadmit.cli`, imported with the cyclic garbage collector off, then every object made so far
    frozen (`gc.freeze`: left out of later collections) and the collector on again. The modules a
    command loads make some hundred thousand objects that live as long as the process; collecting
    while they are made, and scanning them again in every later full collection, found nothing to
    free and was 4% of `kadmit why` on the bundled example (107 M of 2,416 M instructions)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        import kadmit.cli as cli
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
    return cli


def main() -> None:
    """`kadmit …`"""
    _cli().main()


def kubectl_main() -> None:
    """`kubectl kadmit …`"""
    _cli().kubectl_main()


if __name__ == "__main__":
    main()
