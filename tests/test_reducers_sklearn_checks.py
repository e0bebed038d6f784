"""scikit-learn's estimator checks for every registry entry."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from kmdr.reducers import available_reducers, make_reducer

# Small r and k: the checks use tiny data (down to 2-3 features, 10-30 samples).
ESTIMATORS = [make_reducer(name, 2, n_clusters=2, random_state=0) for name in available_reducers()]


# No check is expected to fail (no expected_failed_checks). The only skips are scikit-learn's own:
# the array-API checks skip themselves unless SCIPY_ARRAY_API=1 is set (and the reducers do not
# claim array-API support anyway).
@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    check(estimator)
