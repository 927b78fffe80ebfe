"""The wfs program: the `wfs` command (pyproject.toml's entry point) and `python -m wfs`."""

import gc


def main() -> None:
    """Run wfs in a process of its own. What its imports make lives until the process
    ends: no collection is needed while they run (they would trigger dozens, some 2 %
    of a short command's work), and the later ones pass over it (gc.freeze)."""
    gc.disable()
    try:
        from wfs.cli import main as run  # deferred: imported with collections off
    finally:
        gc.freeze()
        gc.enable()
    run()


if __name__ == "__main__":
    main()
