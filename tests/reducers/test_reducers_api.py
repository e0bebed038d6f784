"""Registry, shared work, sparse = dense, reproducibility and bad input, for every reducer."""

import sys

import numpy as np
import pytest
import scipy.sparse as sp

from _cases import DOES_NOT_IMPORT, SHADOWED, case
from _reducer_helpers import sparse_pair, to_dense
from kmdr.reducers import (
    BUILTIN_REDUCERS,
    REDUCERS,
    DataFacts,
    LeverageScoreSampler,
    LineStyle,
    SharedWork,
    SVDFeatures,
    available_reducers,
    baseline_names,
    canonical_reducer,
    declared_defaults,
    make_reducer,
    max_components,
    planning_facts,
    reducer_class,
    reducer_entry,
    reducer_label,
    reducer_paper,
    unread_params,
    unusable_plugin,
)

NAMES = list(available_reducers())


def _make(name, r=4, seed=0, **params):
    return make_reducer(name, r, n_clusters=3, random_state=seed, **params)


def test_registry_names_labels_and_papers():
    # Subset checks: other built-ins and installed plug-ins may add names.
    expected = {
        "leverage": ("Sampl/SVD", "bmd09 Alg. 1"),
        "leverage_approx": ("Sampl/ApproxSVD", "bzmd14 Alg. 1"),
        "sign": ("RP", "bzmd14 Alg. 2"),
        "gaussian": ("Gaussian RP", "report"),
        "achlioptas": ("Achlioptas RP", "Achlioptas 2001"),
        "sparse_embedding": ("SE", "lst17 Alg. 1"),
        "svd": ("SVD", "bzmd14 Alg. 3"),
        "svd_approx": ("ApprSVD", "bzmd14 Alg. 3"),
        "laplacian": ("LapScores", "He, Cai, Niyogi 2005"),
        "srht": ("SRHT", "FJLT"),
        "ridge_leverage": ("RidgeLev (CMM17)", "Cohen, Musco, Musco 2017"),
        "ridge_leverage_approx": ("ApproxRidgeLev (CMM17)", "Cohen, Musco, Musco 2017"),
        "lle": ("LLE", "Roweis & Saul 2000"),
        "sparsified": ("PD", "Pourkamali-Anaraki & Becker 2017"),
        "none": ("kMeans", "bzmd14"),
    }
    assert set(expected) <= set(NAMES)
    for name, (label, paper) in expected.items():
        assert reducer_label(name) == label
        assert paper in reducer_paper(name)
    assert set(REDUCERS) == set(NAMES)
    assert set(BUILTIN_REDUCERS) <= set(NAMES)
    # Every built-in names its source, and display labels are unique (they are legend entries).
    assert all(entry.paper for entry in BUILTIN_REDUCERS.values())
    labels = [reducer_label(n) for n in NAMES]
    assert len(set(labels)) == len(labels)


def test_every_builtin_is_declared_once_with_its_facts():
    """One entry holds a reducer's class, style, aliases, timing text and baseline role."""
    assert baseline_names() == ("none",)
    assert [n for n, e in BUILTIN_REDUCERS.items() if e.baseline] == ["none"]
    styles = {n: e.style for n, e in BUILTIN_REDUCERS.items() if e.style is not None}
    assert all(isinstance(st, LineStyle) for st in styles.values())
    colors = [st.color for st in styles.values()]
    assert len(set(colors)) == len(colors)  # no two styled curves alike
    assert BUILTIN_REDUCERS["none"].style.linestyle == "--"  # the reference line
    for name, entry in BUILTIN_REDUCERS.items():
        assert entry.time_includes, name  # the report's timing table describes every built-in
        cls = reducer_class(name)
        assert cls.__module__ + ":" + cls.__qualname__ == entry.cls  # the string names its class
        assert REDUCERS[name].cls is cls
        for alias in entry.aliases:
            assert canonical_reducer(alias) == name and reducer_entry(alias) is entry
    aliases = [a for e in BUILTIN_REDUCERS.values() for a in e.aliases]
    assert len(set(aliases)) == len(aliases) and not set(aliases) & set(BUILTIN_REDUCERS)
    assert type(make_reducer("rp", 2, random_state=0)).__name__ == "SignRandomProjection"


@pytest.mark.slow
def test_reading_names_and_facts_imports_no_scikit_learn():
    """A dry run lists reducers and their facts without importing scikit-learn or a reducer."""
    import subprocess

    code = (
        "import sys, kmdr.reducers as kr\n"
        "kr.available_reducers(); kr.reducer_label('svd'); kr.reducer_entry('leverage')\n"
        "kr.baseline_names(); kr.reducer_paper('sign')\n"
        "facts = kr.DataFacts(400, 4096, False)\n"
        "kr.planning_facts('leverage', 5, facts, n_clusters=3); kr.reducer_compat_version('svd')\n"
        "kr.max_components('srht', 400, 4096); kr.max_components('svd', 400, 4096)\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'scipy')\n"
        "               or m.startswith('kmdr.reducers.') and m.rsplit('.', 1)[1] not in\n"
        "               ('_registry', '_builtins', '_entry', '_plans'))\n"
        "print(heavy)\n"
        "from kmdr.reducers import SVDFeatures\n"
        "print('sklearn' in sys.modules, SVDFeatures.__module__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.splitlines()
    assert out == ["[]", "True kmdr.reducers.svd"]


def test_every_builtin_entry_declares_the_plan_its_class_reads():
    """One plan per class: the entry's (read by a dry run) is the class's (read by its methods)."""
    for name in NAMES:
        entry = reducer_entry(name)
        assert entry.plan is not None and entry.plan is reducer_class(name).plan, name
        assert reducer_class(name).compat_version == entry.plan.compat_version


def test_a_declared_default_is_its_classs_default():
    """A plan's defaults are the constructor's (a dry run takes a parameter equal to one as valid
    without importing the class): the same value of the same type."""
    for name in NAMES:
        entry = reducer_entry(name)
        built = reducer_class(name)().get_params(deep=False)
        for key, value in entry.plan.defaults.items():
            assert type(built[key]) is type(value) and built[key] == value, (name, key)
        pinned = set(entry.fixed) & set(entry.plan.defaults)
        assert declared_defaults(name, dict(entry.plan.defaults)) == (not pinned), name


def test_a_parameter_left_unread_is_named_with_when_it_is_read():
    assert unread_params("leverage", {"eps": 0.5, "scores": "sqrt"}) == {
        "eps": "with svd=approximate only (reducer=leverage_approx)"
    }
    assert unread_params("leverage_approx", {"eps": 0.5}) == {}
    assert unread_params("ridge_leverage_approx", {"eps": 0.5}) == {}
    assert set(unread_params("ridge_leverage", {"eps": 0.5})) == {"eps"}
    for name in NAMES:  # a rule names constructor parameters only
        plan = reducer_entry(name).plan
        unread = plan.unread({**plan.defaults, **reducer_entry(name).fixed})
        assert set(unread) <= set(reducer_class(name)().get_params(deep=False)), name


@pytest.mark.parametrize(
    ("name", "params", "declared"),
    [
        ("svd_approx", {}, True),
        ("svd_approx", {"eps": 1 / 3}, True),
        ("svd_approx", {"eps": 0.5}, False),  # another value: its class checks it
        ("svd_approx", {"eps": "abc"}, False),
        ("svd_approx", {"svd": "exact"}, False),  # a parameter the entry pins
        ("laplacian", {"n_neighbors": 5.0}, False),  # the default's value, not its type
        ("sign", {"nosuch": 1}, False),
    ],
)
def test_declared_defaults_are_only_the_declared_values(name, params, declared):
    assert declared_defaults(name, params) is declared


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("n", [30, 250])
def test_the_declared_plan_answers_what_the_reducer_says(n, sparse):
    """planning_facts (no class, no data) gives what the built reducer says on the data itself:
    its shared key, whether its reduction and its shared work depend on the seed, and its bound
    on r."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, 40))
    X = sp.csr_matrix(X) if sparse else X
    facts = DataFacts(n, 40, sparse)
    for name in NAMES:
        for r in (None, 5, 9, 20) if name == "lle" else (None, 5):
            reducer = make_reducer(name, r, n_clusters=3)
            key = reducer.shared_key(X)
            said = (
                key,
                reducer.is_deterministic(X),
                key is not None and reducer.shared_is_deterministic(X),
            )
            assert planning_facts(name, r, facts, n_clusters=3) == said, (name, r)
            assert planning_facts(name, r, X, n_clusters=3) == said, (name, r)
        if name != "lle":  # LLE's bound also checks it is feasible: its class decides
            assert max_components(name, n, 40, n_clusters=3) == make_reducer(
                name, None, n_clusters=3
            ).max_components(n, 40), name


def test_make_reducer_passes_k_only_where_taken_and_pins_entry_params():
    lev = make_reducer("leverage_approx", 7, n_clusters=3, random_state=5, eps=0.5)
    assert isinstance(lev, LeverageScoreSampler)
    assert (lev.n_components, lev.n_clusters, lev.svd, lev.eps, lev.random_state) == (
        7,
        3,
        "approximate",
        0.5,
        5,
    )
    svd = make_reducer("svd", 7, n_clusters=3, random_state=5)
    assert isinstance(svd, SVDFeatures) and "n_clusters" not in svd.get_params()
    assert "random_state" not in make_reducer("laplacian", 7, random_state=1).get_params()


def test_make_reducer_rejects_unknown_names_and_params():
    with pytest.raises(ValueError, match="reducer name='pca' is invalid") as err:
        make_reducer("pca", 5)
    assert all(name in str(err.value) for name in NAMES)
    with pytest.raises(ValueError, match=r"\['svd'\] are invalid for reducer 'leverage'"):
        make_reducer("leverage", 5, n_clusters=2, svd="approximate")
    with pytest.raises(ValueError, match="bogus"):
        make_reducer("sign", 5, bogus=1)


def test_max_components():
    assert max_components("leverage", 10, 50) is None
    assert max_components("leverage", 10, 50, scores="top") == 50
    assert max_components("sign", 10, 50) is None
    assert max_components("sparse_embedding", 10, 50) is None
    assert max_components("svd", 10, 50) == 10
    assert max_components("svd_approx", 60, 50) == 50
    assert max_components("laplacian", 10, 50) == 50
    assert max_components("none", 10, 50) is None


@pytest.mark.parametrize("name", NAMES)
def test_sparse_input_gives_the_same_numbers_as_dense(name):
    X, Xs = sparse_pair()
    for sparse_input in (Xs, sp.csc_matrix(Xs), sp.coo_array(Xs)):
        Cd = _make(name).fit_transform(X)
        Cs = _make(name).fit_transform(sparse_input)
        assert Cs.shape == Cd.shape
        if name.startswith("svd"):  # svds vs LAPACK: same subspace, signs fixed by svd_flip
            np.testing.assert_allclose(np.abs(to_dense(Cs)), np.abs(Cd), atol=1e-8)
        elif name == "lle":  # the sparse path is scikit-learn's ARPACK LLE: the same subspace
            Cd = _make(name, eigen_solver="arpack").fit_transform(X)
            (qs, _), (qd, _) = np.linalg.qr(Cs), np.linalg.qr(Cd)
            np.testing.assert_allclose(qs @ qs.T, qd @ qd.T, atol=1e-6)
        else:
            # to_dense(Cd): PD's output is sparse even for dense input
            np.testing.assert_allclose(to_dense(Cs), to_dense(Cd), atol=1e-10)


@pytest.mark.parametrize("name", NAMES)
def test_same_random_state_same_output(name):
    X, Xs = sparse_pair()
    for data in (X, Xs):
        a = to_dense(_make(name, seed=7).fit_transform(data))
        b = to_dense(_make(name, seed=7).fit_transform(data))
        np.testing.assert_array_equal(a, b)
        if name != "lle":  # LLE's transform is out-of-sample, fit_transform is the embedding
            c = to_dense(_make(name, seed=7).fit(data).transform(data))
            np.testing.assert_allclose(a, c, atol=1e-12)
    if name in (
        "leverage",
        "leverage_approx",
        "ridge_leverage",
        "ridge_leverage_approx",
        "sign",
        "gaussian",
        "achlioptas",
        "sparse_embedding",
        "srht",
    ):
        assert not np.array_equal(_make(name, seed=8).fit_transform(X), a)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("sparse", [False, True])
def test_fit_with_shared_work_equals_fit_without(name, sparse):
    X, Xs = sparse_pair()
    data = Xs if sparse else X
    alone = _make(name, r=5)
    C_alone = to_dense(alone.fit_transform(data))
    assert alone.shared_seconds_ >= 0.0
    key = alone.shared_key(data)
    if key is None:
        with pytest.raises(ValueError, match="shared must be None"):
            _make(name).fit(data, shared=SharedWork(("x",), None, 0.0))
        assert alone.shared_seconds_ == 0.0
        return
    assert alone.shared_seconds_ > 0.0
    shared = _make(name, r=2).compute_shared(data)  # another instance, another r
    assert shared.key == key and shared.seconds > 0
    for r in (3, 5):
        est = _make(name, r=r).fit(data, shared=shared)
        assert est.shared_seconds_ == shared.seconds
    np.testing.assert_array_equal(to_dense(est.transform(data)), C_alone)


def test_exact_leverage_shares_a_rank_k_factor_and_svd_features_share_nothing():
    X, _ = sparse_pair()
    shared = LeverageScoreSampler(2, n_clusters=3).compute_shared(X)
    assert shared.key == ("exact_svd", 3)
    lev = LeverageScoreSampler(6, n_clusters=3, random_state=0)
    np.testing.assert_array_equal(
        lev.fit_transform(X, shared=shared),
        LeverageScoreSampler(6, n_clusters=3, random_state=0).fit_transform(X),
    )
    with pytest.raises(ValueError, match="computed for"):
        LeverageScoreSampler(6, n_clusters=4).fit(X, shared=shared)  # a rank-3 factor, k = 4
    with pytest.raises(ValueError, match="computed for"):
        make_reducer("leverage_approx", 6, n_clusters=3).fit(X, shared=shared)
    # SVD features need rank r, different in every cell: nothing to share across r.
    assert SVDFeatures(2).shared_key(X) is None
    with pytest.raises(ValueError, match="shared must be None"):
        SVDFeatures(2).fit(X, shared=shared)


def test_approximate_shared_work_uses_the_given_seed():
    X, _ = sparse_pair()
    est = make_reducer("leverage_approx", 6, n_clusters=3, random_state=0)
    a = est.compute_shared(X, random_state=1).value.components
    b = est.compute_shared(X, random_state=1).value.components
    c = est.compute_shared(X, random_state=2).value.components
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


# ---------------------------------------------------------------- bad input

X_OK = np.random.default_rng(0).standard_normal((12, 8))


@pytest.mark.parametrize("name", [n for n in NAMES if n != "none"])
@pytest.mark.parametrize("r", [0, -3])
def test_r_below_one(name, r):
    with pytest.raises(ValueError, match=r"n_components.*range \[1, inf\).*Got"):
        _make(name, r=r).fit(X_OK)


@pytest.mark.parametrize(
    ("name", "r", "bound"),
    [("svd", 13, 8), ("svd_approx", 9, 8), ("laplacian", 9, 8)],
)
def test_r_above_what_the_reducer_can_produce(name, r, bound):
    with pytest.raises(ValueError, match=rf"n_components={r} is invalid .*\[1, {bound}\]"):
        _make(name, r=r).fit(X_OK)


@pytest.mark.parametrize("name", ["leverage", "leverage_approx"])
@pytest.mark.parametrize("k", [0, 9, 13, None])
def test_bad_number_of_clusters(name, k):
    est = make_reducer(name, 4, n_clusters=k)
    match = r"n_clusters.*range \[1, inf\)" if k == 0 else rf"n_clusters={k} is invalid.*\[1, 8\]"
    with pytest.raises(ValueError, match=match):
        est.fit(X_OK)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("X", "match"),
    [
        (np.where(np.eye(12, 8) > 0, np.nan, X_OK), "NaN"),
        (np.where(np.eye(12, 8) > 0, np.inf, X_OK), "infinity"),
        (np.arange(8.0), "Expected 2D array"),
        (np.empty((0, 8)), "0 sample"),
        (np.empty((12, 0)), "0 feature"),
        ([["a", "b"], ["c", "d"]], "could not convert string"),
        ("abc", "could not convert string"),
    ],
)
def test_bad_data(name, X, match):
    with pytest.raises(ValueError, match=match):
        _make(name).fit(X)


@pytest.mark.parametrize(
    ("name", "params", "match"),
    [
        ("leverage_approx", {"eps": 0.0}, r"'eps' parameter .* range \(0.0, 1.0\)"),
        ("leverage_approx", {"eps": 1.0}, r"'eps' parameter .* range \(0.0, 1.0\)"),
        ("svd_approx", {"eps": 2.0}, r"'eps' parameter .* range \(0.0, 1.0\)"),
        ("leverage", {"scores": "bogus"}, r"'scores' parameter of \w+ must be a str among"),
        ("laplacian", {"t": -1.0}, r"'t' parameter"),
        ("laplacian", {"n_neighbors": 12}, r"n_neighbors=12 is invalid .*\[1, 11\]"),
        ("sparse_embedding", {"dense_output": "yes"}, r"'dense_output' parameter"),
    ],
)
def test_bad_options(name, params, match):
    with pytest.raises(ValueError, match=match):
        _make(name, **params).fit(X_OK)


def test_unknown_svd_option():
    with pytest.raises(ValueError, match=r"'svd' parameter of \w+ must be a str among"):
        LeverageScoreSampler(3, n_clusters=2, svd="randomized").fit(X_OK)
    with pytest.raises(ValueError, match=r"'svd' parameter"):
        SVDFeatures(3, svd="full").fit(X_OK)


def test_transform_checks_the_number_of_features():
    est = _make("sign").fit(X_OK)
    with pytest.raises(ValueError, match="8 features"):
        est.transform(X_OK[:, :5])


# ---------------------------------------------------------------- plug-ins (entry points)

_TOY_MODULE = '''
import numpy as np
from kmdr.reducers import BaseReducer, ReducerEntry


class FirstColumns(BaseReducer):
    """Keep the first r columns (a toy plug-in)."""

    _parameter_constraints = {"n_components": [int]}

    def __init__(self, n_components=2):
        self.n_components = n_components

    def _fit(self, X, shared_value):
        pass

    def _transform(self, X):
        return np.asarray(X[:, : self.n_components_].todense() if hasattr(X, "todense")
                          else X[:, : self.n_components_])


TOY = ReducerEntry(FirstColumns, "Toy", paper="toy paper 2024")
NOT_A_REDUCER = 42
'''


@pytest.fixture
def install_plugin(tmp_path, monkeypatch):
    """Install a distribution with ``kmdr.reducers`` entry points on sys.path (no pip).

    Returns a function taking the entry_points.txt lines; the registry's plug-ins are reloaded
    before and after, so other tests see only the built-ins.
    """
    import importlib

    from kmdr.reducers import _registry

    def install(*lines):
        (tmp_path / "toyplugin_mod.py").write_text(_TOY_MODULE)
        info = tmp_path / "toyplugin-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplugin\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text("[kmdr.reducers]\n" + "\n".join(lines) + "\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        importlib.invalidate_caches()
        _registry.reload_plugins()

    yield install
    monkeypatch.undo()  # sys.path first, so that the reload finds no plug-in
    _registry.reload_plugins()
    sys.modules.pop("toyplugin_mod", None)


def test_a_plugin_entry_is_loaded_once_and_works_everywhere(install_plugin):
    install_plugin("toy = toyplugin_mod:TOY", "toycls = toyplugin_mod:FirstColumns")
    assert available_reducers()[: len(BUILTIN_REDUCERS)] == tuple(BUILTIN_REDUCERS)
    assert "toyplugin_mod" not in sys.modules  # names are known without importing
    assert {"toy", "toycls"} <= set(available_reducers()) and "toy" in REDUCERS
    assert (reducer_label("toy"), reducer_paper("toy")) == ("Toy", "toy paper 2024")
    assert reducer_label("toycls") == "toycls"  # a bare class: labelled by its name
    module = sys.modules["toyplugin_mod"]
    X = np.arange(12.0).reshape(3, 4)
    for name in ("toy", "toycls"):
        np.testing.assert_array_equal(
            make_reducer(name, 2, n_clusters=3).fit_transform(X), X[:, :2]
        )
    assert sys.modules["toyplugin_mod"] is module  # loaded once
    assert reducer_class("toy") is module.FirstColumns
    assert not reducer_entry("toy").baseline and reducer_entry("toy").style is None


@pytest.mark.parametrize(
    "says",
    [
        case(**DOES_NOT_IMPORT),
        case(
            says="not a ReducerEntry or a kmdr BaseReducer subclass",
            doing="plugin",
            cause="a plug-in's `kmdr.reducers` entry point names something that is neither a "
            "ReducerEntry nor a reducer class",
            fix="point the entry point at a kmdr.reducers.ReducerEntry or a BaseReducer subclass",
        ),
    ],
)
def test_a_broken_plugin_warns_in_one_line_and_spares_the_builtins(install_plugin, says):
    install_plugin(
        "toy = toyplugin_mod:TOY",
        "missing = no_such_module_xyz:Thing",
        "notreducer = toyplugin_mod:NOT_A_REDUCER",
    )
    names = available_reducers()  # nothing imported: no warning yet
    assert {"toy", "missing", "notreducer"} <= set(names) and set(BUILTIN_REDUCERS) <= set(names)
    make_reducer("sign", 2, random_state=0)  # built-ins unaffected
    reducer_label("toy")
    with pytest.warns(UserWarning) as record:
        with pytest.raises(ValueError, match=r"plug-in entry point missing = .*failed to import"):
            make_reducer("missing", 2)
        with pytest.raises(ValueError, match=r"notreducer = toyplugin_mod:NOT_A_REDUCER.* int"):
            reducer_label("notreducer")
    messages = sorted(str(w.message) for w in record)
    assert len(messages) == 2 and all("\n" not in m for m in messages)
    assert "missing = no_such_module_xyz:Thing" in messages[0] and "toyplugin 0.1" in messages[0]
    assert "No module named 'no_such_module_xyz'" in messages[0]
    assert sum(says in m for m in messages) == 1
    assert unusable_plugin("missing") == messages[0]  # the same line, asked again: no new warning
    assert unusable_plugin("toy") is None and unusable_plugin("sign") is None
    assert unusable_plugin("nosuchname") is None


def test_a_plugin_entry_may_name_its_class_as_a_string(install_plugin, tmp_path):
    (tmp_path / "toyplugin_lazy.py").write_text(
        "from kmdr.reducers import LineStyle, ReducerEntry\n"
        "LAZY = ReducerEntry('toyplugin_mod:FirstColumns', 'Lazy', style=LineStyle('#123456', 'o'),"
        " time_includes='nothing', aliases=('lazy_alias',))\n"
    )
    install_plugin("lazy = toyplugin_lazy:LAZY")
    assert reducer_label("lazy") == "Lazy" and reducer_entry("lazy").style.color == "#123456"
    assert reducer_class("lazy").__name__ == "FirstColumns"
    assert REDUCERS["lazy"].cls is reducer_class("lazy")
    X = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(make_reducer("lazy", 1).fit_transform(X), X[:, :1])
    sys.modules.pop("toyplugin_lazy", None)


@pytest.mark.parametrize("says", [case(**SHADOWED)])
def test_a_plugin_named_like_a_builtin_is_ignored_with_one_warning(install_plugin, says):
    install_plugin("svd = toyplugin_mod:TOY", "toy = toyplugin_mod:TOY")
    with pytest.warns(UserWarning) as record:
        names = available_reducers()
    (message,) = [str(w.message) for w in record]
    assert "\n" not in message and "svd = toyplugin_mod:TOY" in message
    assert "toyplugin 0.1" in message and f"{says} reducer 'svd'" in message
    assert names.count("svd") == 1 and "toy" in names
    assert reducer_label("svd") == "SVD"  # the built-in's
    assert type(make_reducer("svd", 2)).__name__ == "SVDFeatures"


def test_a_config_may_name_a_reducer_by_an_alias_and_gets_its_one_name():
    """An alias means its entry everywhere: the run's reducer (and so its cells) carries the
    registry name, so an alias and its name are the same cells."""
    from kmdr.config.schema import from_config

    spec = from_config(
        {"dataset": {"name": "synth"}, "reducers": [{"name": "rp"}], "r_grid": [2], "repeats": 1}
    )
    (reducer,) = spec.experiment.reducers
    assert (reducer.id, reducer.name, reducer.label) == ("sign", "sign", "RP")
