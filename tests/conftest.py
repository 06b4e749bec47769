"""Test configuration: hypothesis profiles.

``ci`` (used when CI=true) is derandomized so a run is reproducible; ``dev`` explores new
examples each run.  Select explicitly with ``--hypothesis-profile``.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")
