"""Pictures as a reader's browser should get them: sized, in a few widths and modern
formats, without the metadata a camera wrote (blogbuild.pipeline.images runs it)."""
