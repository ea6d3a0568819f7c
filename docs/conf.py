# Sphinx configuration of the documentation site (tools/docs/build_site.sh).
# The guides are this folder's Markdown pages (MyST); the Python API
# reference is autodoc over the built package, which build_site.sh puts on
# sys.path; the C++ (Doxygen) and Java (Javadoc) references are built beside
# the site and linked from index.md. Every warning fails the build (-W).

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_ext"))

project = "loaderx"
author = "the loaderx authors"
extensions = ["myst_parser", "sphinx.ext.autodoc", "plain_docstrings"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
# cpp_api_mainpage.md is Doxygen's main page (docs/Doxyfile).
exclude_patterns = ["cpp_api_mainpage.md", "_build", "_ext"]
myst_heading_anchors = 3
autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False}
html_theme = "alabaster"
html_static_path = []
html_extra_path = []
highlight_language = "none"
