"""``warp._src.context``: the module registry Warp's tests clear."""

user_modules = {}
