"""``python -m kmdr``: the ``kmdr`` command."""

from kmdr.app.entry import main

main()
