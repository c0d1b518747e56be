"""The content model and how sources are found and read."""
