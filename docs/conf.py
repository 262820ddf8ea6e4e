# Sphinx configuration of guilab's documentation site (staged and built by docs/build.py; `make docs`). Offline:
# every extension and the theme come from PyPI, notebooks are not executed, nothing is fetched.
project = "guilab"
author = "guilab developers"
extensions = ["myst_nb"]
nb_execution_mode = "off"                 # the library notebooks run under `make test`; the repro ones hold the run's outputs
nb_merge_streams = True
myst_heading_anchors = 4                  # GitHub-style anchors, so the guides' #links work on the site as on GitHub
myst_enable_extensions = ["colon_fence"]     # no dollarmath: MathJax would be fetched from a CDN
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type", "misc.highlighting_failure", "myst.xref_missing"]
exclude_patterns = ["_extra", "_build"]
html_theme = "furo"
html_title = "guilab"
html_extra_path = ["_extra"]              # the gallery (figures/ as committed) at gallery/
html_theme_options = {"navigation_with_keys": True}
html_show_sourcelink = False
html_copy_source = False                  # the sources are in the repository
nb_ipywidgets_js = {}                     # the executed notebooks' progress-bar widgets stay static: no widget JS from a CDN
