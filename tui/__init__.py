"""The iclr-reader terminal interface: the Textual app, its screens, the renderer and the CLI."""
