"""Pictures as a reader's browser should get them: sized, in a few widths and modern
formats, without the metadata a camera wrote (blogbuild.stages.images runs it)."""
