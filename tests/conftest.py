import os

from hypothesis import settings

# CI draws the same examples every run (a red CI must be reproducible); `make soak` hunts for new
# counterexamples with fresh random draws and many more examples.
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
