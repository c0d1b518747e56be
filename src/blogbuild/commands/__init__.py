"""One module per command, each with one public function."""
