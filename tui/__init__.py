"""The iclr-reader terminal interface: the Textual app, its screens, the renderer and the CLI."""

import os

# Textual paints at most MAX_FPS times a second and waits up to one frame before painting new results.
# At 120 a keystroke's results reach the screen ~8 ms sooner; an idle app paints nothing either way.
# Read when Textual is imported, so it is set here, before any of the interface imports it.
os.environ.setdefault("TEXTUAL_FPS", "120")
