"""tools/events_import - turn the vendors' event data (../shared/vendor-events) into events/vendor/*.csv.

    python3 -m tools.events_import [--vendor-events DIR] [--events DIR] [--check]

See __main__.py and docs/events.md.
"""
