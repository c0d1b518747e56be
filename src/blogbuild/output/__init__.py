"""Writing the output folder: what pages there are, templates, the one writer."""
