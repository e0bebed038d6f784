"""``python -m kmdr.app``: the ``kmdr`` command."""

from kmdr.app.entry import main

main()
