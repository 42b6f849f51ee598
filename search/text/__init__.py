"""Text conversion: LaTeX and Markdown abstracts to plain text, style spans and links; terminal-safe
sanitising; method names, headlines and links for display.

Imports only search.models and pylatexenc; everything else in search/ may import it.
"""
