"""scikit-learn's estimator checks for every registry entry."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from kmdr.reducers import available_reducers, make_reducer

# Small r and k: the checks use tiny data (down to 2-3 features, 10-30 samples).
# LLE's default 12 neighbours need n_samples >= 13; the checks' smallest X has 10 rows.
CHECK_PARAMS = {"lle": {"n_neighbors": 5}}
ESTIMATORS = [
    make_reducer(name, 2, n_clusters=2, random_state=0, **CHECK_PARAMS.get(name, {}))
    for name in available_reducers()
]


def _expected_failed_checks(estimator):
    """A reducer that cannot meet a check names it, and why, in ``_expected_failed_checks``."""
    return dict(getattr(estimator, "_expected_failed_checks", {}))


# Only the checks a reducer declares (PD: the two row-order checks, its kept positions are drawn
# per row position) are expected to fail. The only skips are scikit-learn's own: the array-API
# checks skip themselves unless SCIPY_ARRAY_API=1 is set (and the reducers do not claim array-API
# support anyway).
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)
