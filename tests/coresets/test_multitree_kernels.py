"""The shifted quadtrees of Fast-kmeans++ (:func:`kmdr.coresets._multitree_kernels.build_tree`)
against the trees the kernel built before it computed each row's cells once: every output array
hashed, per case, from that kernel's run (the same cells, the same order of rows within them, the
same nodes), so that seeded Fast-kmeans++ and Fast-Coresets draw what they drew."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from kmdr.coresets import _multitree_kernels as kernels
from kmdr.coresets._fast_kmeanspp import N_LEVELS


def _rows(n, d, kind, dtype, layout, seed):
    rng = np.random.RandomState(seed)
    if kind == "blobs":  # clusters at several scales: deep and shallow cells
        centers = rng.normal(scale=10.0, size=(8, d))
        X = centers[rng.randint(8, size=n)] + rng.normal(scale=0.1, size=(n, d))
    elif kind == "duplicates":  # rows repeated: leaves of several rows in one finest cell
        X = rng.normal(size=(max(n // 5, 1), d))[rng.randint(max(n // 5, 1), size=n)]
    elif kind == "constant_column":
        X = rng.uniform(size=(n, d))
        X[:, d // 2] = 3.0
    else:
        X = rng.uniform(size=(n, d))
    X = X.astype(dtype)
    return np.asfortranarray(X) if layout == "F" else np.ascontiguousarray(X)


def _tree_hash(X, seed):
    low = X.min(axis=0).astype(np.float64)
    spread = float((X.max(axis=0) - low).max())
    width = 2.0 * spread if spread > 0 else 1.0
    shift = np.random.RandomState(seed).uniform(0.0, width / 2, size=X.shape[1])
    tree = kernels.build_tree(X, low, shift, width, N_LEVELS)
    digest = hashlib.sha256()
    for array in tree:
        digest.update(np.ascontiguousarray(array, dtype=np.int64).tobytes())
    return digest.hexdigest()[:16]


# (n, d, kind, dtype, layout, seed): the hash of the trees the kernel built before its rewrite
CASES = {
    (1, 1, "uniform", "float64", "C", 0): "5259401e03bb2e37",
    (1, 1, "uniform", "float32", "F", 1): "5259401e03bb2e37",
    (7, 1, "uniform", "float64", "C", 2): "cf04120025375ea9",
    (7, 1, "uniform", "float32", "F", 3): "46d3992826cd26d7",
    (300, 1, "uniform", "float64", "C", 4): "e0ca6e82c5fd186d",
    (300, 1, "uniform", "float64", "F", 5): "a08adc1466b3ba59",
    (300, 1, "uniform", "float32", "C", 6): "c90d066208b82797",
    (300, 1, "uniform", "float32", "F", 7): "91421fd6bcaa70bd",
    (20000, 1, "uniform", "float64", "C", 8): "0d075f070a3f7623",
    (20000, 1, "uniform", "float32", "F", 9): "8141611734f7f752",
    (1, 1, "blobs", "float64", "C", 10): "5259401e03bb2e37",
    (1, 1, "blobs", "float32", "F", 11): "5259401e03bb2e37",
    (7, 1, "blobs", "float64", "C", 12): "63de00a6247c5d9d",
    (7, 1, "blobs", "float32", "F", 13): "10df01937378b99d",
    (300, 1, "blobs", "float64", "C", 14): "e42c4e9fc630c683",
    (300, 1, "blobs", "float64", "F", 15): "33918495008b1b3f",
    (300, 1, "blobs", "float32", "C", 16): "e9f4d1d2781dcd0c",
    (300, 1, "blobs", "float32", "F", 17): "209ecdfe7f2ba529",
    (20000, 1, "blobs", "float64", "C", 18): "fdbae2002d41f501",
    (20000, 1, "blobs", "float32", "F", 19): "522c36103f433c64",
    (1, 1, "duplicates", "float64", "C", 20): "5259401e03bb2e37",
    (1, 1, "duplicates", "float32", "F", 21): "5259401e03bb2e37",
    (7, 1, "duplicates", "float64", "C", 22): "57c2adbf170761cd",
    (7, 1, "duplicates", "float32", "F", 23): "57c2adbf170761cd",
    (300, 1, "duplicates", "float64", "C", 24): "c2bcde1c02457568",
    (300, 1, "duplicates", "float64", "F", 25): "2eda0fb2a38e20d4",
    (300, 1, "duplicates", "float32", "C", 26): "f2b2ac795b85b4d7",
    (300, 1, "duplicates", "float32", "F", 27): "532c269e5afdbcbf",
    (20000, 1, "duplicates", "float64", "C", 28): "871e9201d9389f8a",
    (20000, 1, "duplicates", "float32", "F", 29): "4decc767a91d18ef",
    (1, 2, "uniform", "float64", "C", 30): "5259401e03bb2e37",
    (1, 2, "uniform", "float32", "F", 31): "5259401e03bb2e37",
    (7, 2, "uniform", "float64", "C", 32): "4d341f2fd958b158",
    (7, 2, "uniform", "float32", "F", 33): "51b7a71cdc423c87",
    (300, 2, "uniform", "float64", "C", 34): "aec14530d78bceae",
    (300, 2, "uniform", "float64", "F", 35): "51c52671349cbc45",
    (300, 2, "uniform", "float32", "C", 36): "407103f5e0c4b0c8",
    (300, 2, "uniform", "float32", "F", 37): "d86a2d2ec59cfcb1",
    (20000, 2, "uniform", "float64", "C", 38): "e25cec9933a13fbb",
    (20000, 2, "uniform", "float32", "F", 39): "18cb713b748d95e9",
    (1, 2, "blobs", "float64", "C", 40): "5259401e03bb2e37",
    (1, 2, "blobs", "float32", "F", 41): "5259401e03bb2e37",
    (7, 2, "blobs", "float64", "C", 42): "92c94cb5a71b1a7b",
    (7, 2, "blobs", "float32", "F", 43): "acfc695b231b17c7",
    (300, 2, "blobs", "float64", "C", 44): "2d5f015961c6fc15",
    (300, 2, "blobs", "float64", "F", 45): "5d3cac650dc01ca0",
    (300, 2, "blobs", "float32", "C", 46): "6a5bd1216a6d0706",
    (300, 2, "blobs", "float32", "F", 47): "1fc5046499c1211d",
    (20000, 2, "blobs", "float64", "C", 48): "8bec469f1205e981",
    (20000, 2, "blobs", "float32", "F", 49): "50cfdb9415fe7997",
    (1, 2, "duplicates", "float64", "C", 50): "5259401e03bb2e37",
    (1, 2, "duplicates", "float32", "F", 51): "5259401e03bb2e37",
    (7, 2, "duplicates", "float64", "C", 52): "57c2adbf170761cd",
    (7, 2, "duplicates", "float32", "F", 53): "57c2adbf170761cd",
    (300, 2, "duplicates", "float64", "C", 54): "dc27240a38024477",
    (300, 2, "duplicates", "float64", "F", 55): "a6e5c276422ebec7",
    (300, 2, "duplicates", "float32", "C", 56): "d43771f8b3078bb5",
    (300, 2, "duplicates", "float32", "F", 57): "24879f971c6747f8",
    (20000, 2, "duplicates", "float64", "C", 58): "2d6c0eb43fd6d793",
    (20000, 2, "duplicates", "float32", "F", 59): "f5380cf9c9f5143e",
    (1, 2, "constant_column", "float64", "C", 60): "5259401e03bb2e37",
    (1, 2, "constant_column", "float32", "F", 61): "5259401e03bb2e37",
    (7, 2, "constant_column", "float64", "C", 62): "37dffcc7d9661af1",
    (7, 2, "constant_column", "float32", "F", 63): "8c1f2375eb6786f3",
    (300, 2, "constant_column", "float64", "C", 64): "e45e5102b0c7e6b2",
    (300, 2, "constant_column", "float64", "F", 65): "2538d7be0753c31f",
    (300, 2, "constant_column", "float32", "C", 66): "fc363a8904e12f1b",
    (300, 2, "constant_column", "float32", "F", 67): "024b54703f31c527",
    (20000, 2, "constant_column", "float64", "C", 68): "2d45ff3cbc905af5",
    (20000, 2, "constant_column", "float32", "F", 69): "d4a00c56854abd1c",
    (1, 13, "uniform", "float64", "C", 70): "5259401e03bb2e37",
    (1, 13, "uniform", "float32", "F", 71): "5259401e03bb2e37",
    (7, 13, "uniform", "float64", "C", 72): "2cc754b3a32d4207",
    (7, 13, "uniform", "float32", "F", 73): "251c685a1dc3c282",
    (300, 13, "uniform", "float64", "C", 74): "457f5f189306b959",
    (300, 13, "uniform", "float64", "F", 75): "9e90d35df8c20579",
    (300, 13, "uniform", "float32", "C", 76): "7413beb7a8178f6e",
    (300, 13, "uniform", "float32", "F", 77): "773316f3095895f3",
    (20000, 13, "uniform", "float64", "C", 78): "7da8de9c1343f3c1",
    (20000, 13, "uniform", "float32", "F", 79): "777070420b36436b",
    (1, 13, "blobs", "float64", "C", 80): "5259401e03bb2e37",
    (1, 13, "blobs", "float32", "F", 81): "5259401e03bb2e37",
    (7, 13, "blobs", "float64", "C", 82): "c1faba6e2583e0ff",
    (7, 13, "blobs", "float32", "F", 83): "8d8c7ed1fb692238",
    (300, 13, "blobs", "float64", "C", 84): "e56559ee30588f82",
    (300, 13, "blobs", "float64", "F", 85): "614484a7162b7bb2",
    (300, 13, "blobs", "float32", "C", 86): "3854abe63b7f295c",
    (300, 13, "blobs", "float32", "F", 87): "69fdd57dcd28e571",
    (20000, 13, "blobs", "float64", "C", 88): "f7d5069c8f13c825",
    (20000, 13, "blobs", "float32", "F", 89): "a9a328ad351c5587",
    (1, 13, "duplicates", "float64", "C", 90): "5259401e03bb2e37",
    (1, 13, "duplicates", "float32", "F", 91): "5259401e03bb2e37",
    (7, 13, "duplicates", "float64", "C", 92): "57c2adbf170761cd",
    (7, 13, "duplicates", "float32", "F", 93): "57c2adbf170761cd",
    (300, 13, "duplicates", "float64", "C", 94): "af1695b115421a24",
    (300, 13, "duplicates", "float64", "F", 95): "bff25137a9ae133c",
    (300, 13, "duplicates", "float32", "C", 96): "062814033b19720c",
    (300, 13, "duplicates", "float32", "F", 97): "d6953c1306563104",
    (20000, 13, "duplicates", "float64", "C", 98): "65f1a3df556aee78",
    (20000, 13, "duplicates", "float32", "F", 99): "3be8959234031a4e",
    (1, 13, "constant_column", "float64", "C", 100): "5259401e03bb2e37",
    (1, 13, "constant_column", "float32", "F", 101): "5259401e03bb2e37",
    (7, 13, "constant_column", "float64", "C", 102): "7b3a2d7e4b051b50",
    (7, 13, "constant_column", "float32", "F", 103): "8f31e98e49552c3f",
    (300, 13, "constant_column", "float64", "C", 104): "5529e75da270f0a1",
    (300, 13, "constant_column", "float64", "F", 105): "fe6de9917d007418",
    (300, 13, "constant_column", "float32", "C", 106): "22473c162ca62d22",
    (300, 13, "constant_column", "float32", "F", 107): "331946c9c93f5208",
    (20000, 13, "constant_column", "float64", "C", 108): "7f7bf82396e67502",
    (20000, 13, "constant_column", "float32", "F", 109): "53200318e680bc1a",
    (1, 50, "uniform", "float64", "C", 110): "5259401e03bb2e37",
    (1, 50, "uniform", "float32", "F", 111): "5259401e03bb2e37",
    (7, 50, "uniform", "float64", "C", 112): "c9680ee7779f4d01",
    (7, 50, "uniform", "float32", "F", 113): "d4b37007123e41bc",
    (300, 50, "uniform", "float64", "C", 114): "f8fc0250a6f93979",
    (300, 50, "uniform", "float64", "F", 115): "fe4b62c784d42fa5",
    (300, 50, "uniform", "float32", "C", 116): "46822b24bb08d281",
    (300, 50, "uniform", "float32", "F", 117): "1878e06378c5077e",
    (20000, 50, "uniform", "float64", "C", 118): "5780e02e77d19f14",
    (20000, 50, "uniform", "float32", "F", 119): "a1deac0a5bb2b8a1",
    (1, 50, "blobs", "float64", "C", 120): "5259401e03bb2e37",
    (1, 50, "blobs", "float32", "F", 121): "5259401e03bb2e37",
    (7, 50, "blobs", "float64", "C", 122): "fe635841e2ed7ef9",
    (7, 50, "blobs", "float32", "F", 123): "9ed8b2f799aa50c5",
    (300, 50, "blobs", "float64", "C", 124): "3d4d69b0844f5d02",
    (300, 50, "blobs", "float64", "F", 125): "b19ab07683bd9af9",
    (300, 50, "blobs", "float32", "C", 126): "6f2786efc9a7b52d",
    (300, 50, "blobs", "float32", "F", 127): "a166d814c990d762",
    (20000, 50, "blobs", "float64", "C", 128): "0f12c6a3137d7f12",
    (20000, 50, "blobs", "float32", "F", 129): "73dc87892e14ab97",
    (1, 50, "duplicates", "float64", "C", 130): "5259401e03bb2e37",
    (1, 50, "duplicates", "float32", "F", 131): "5259401e03bb2e37",
    (7, 50, "duplicates", "float64", "C", 132): "57c2adbf170761cd",
    (7, 50, "duplicates", "float32", "F", 133): "57c2adbf170761cd",
    (300, 50, "duplicates", "float64", "C", 134): "3f6dcc0ce117ba05",
    (300, 50, "duplicates", "float64", "F", 135): "3fdf757fbb4bd589",
    (300, 50, "duplicates", "float32", "C", 136): "4b54a8874a44aff7",
    (300, 50, "duplicates", "float32", "F", 137): "d31123404f4c258d",
    (20000, 50, "duplicates", "float64", "C", 138): "a4338c765f1ef92b",
    (20000, 50, "duplicates", "float32", "F", 139): "860ab7de3e6fcb44",
    (1, 50, "constant_column", "float64", "C", 140): "5259401e03bb2e37",
    (1, 50, "constant_column", "float32", "F", 141): "5259401e03bb2e37",
    (7, 50, "constant_column", "float64", "C", 142): "4cf0a99e92ffb34e",
    (7, 50, "constant_column", "float32", "F", 143): "4dbaa20fe877736a",
    (300, 50, "constant_column", "float64", "C", 144): "079b0803a29e35b0",
    (300, 50, "constant_column", "float64", "F", 145): "6121c7a1df714a6a",
    (300, 50, "constant_column", "float32", "C", 146): "1704c92f37f6d602",
    (300, 50, "constant_column", "float32", "F", 147): "5cfdaf504a0c732c",
    (20000, 50, "constant_column", "float64", "C", 148): "5f91d8e37f2161ac",
    (20000, 50, "constant_column", "float32", "F", 149): "5b1305239967607b",
    (1, 70, "uniform", "float64", "C", 150): "5259401e03bb2e37",
    (1, 70, "uniform", "float32", "F", 151): "5259401e03bb2e37",
    (7, 70, "uniform", "float64", "C", 152): "1119b66dc4699cb9",
    (7, 70, "uniform", "float32", "F", 153): "a73a1b8c6532fd98",
    (300, 70, "uniform", "float64", "C", 154): "fd297f4e5304c795",
    (300, 70, "uniform", "float64", "F", 155): "fd888f80791af458",
    (300, 70, "uniform", "float32", "C", 156): "d67acc4ad7dddee7",
    (300, 70, "uniform", "float32", "F", 157): "4bbd48d4e71c873f",
    (1, 70, "blobs", "float64", "C", 158): "5259401e03bb2e37",
    (1, 70, "blobs", "float32", "F", 159): "5259401e03bb2e37",
    (7, 70, "blobs", "float64", "C", 160): "aa9563d644b41fe7",
    (7, 70, "blobs", "float32", "F", 161): "42f2fd4fbb2b00f8",
    (300, 70, "blobs", "float64", "C", 162): "312e621da0310220",
    (300, 70, "blobs", "float64", "F", 163): "d714e5ec62fed63a",
    (300, 70, "blobs", "float32", "C", 164): "d121394a24f8afb4",
    (300, 70, "blobs", "float32", "F", 165): "768a2cac2d61c8c6",
    (20000, 70, "blobs", "float64", "C", 166): "2af7053c454d9195",
    (20000, 70, "blobs", "float32", "F", 167): "9f8ff548bf9e290e",
    (1, 70, "duplicates", "float64", "C", 168): "5259401e03bb2e37",
    (1, 70, "duplicates", "float32", "F", 169): "5259401e03bb2e37",
    (7, 70, "duplicates", "float64", "C", 170): "57c2adbf170761cd",
    (7, 70, "duplicates", "float32", "F", 171): "57c2adbf170761cd",
    (300, 70, "duplicates", "float64", "C", 172): "8e76fd4c84832006",
    (300, 70, "duplicates", "float64", "F", 173): "0bf7b134ccb6b0e7",
    (300, 70, "duplicates", "float32", "C", 174): "77cf4e24bf9548cf",
    (300, 70, "duplicates", "float32", "F", 175): "4718074ee0189913",
    (1, 70, "constant_column", "float64", "C", 176): "5259401e03bb2e37",
    (1, 70, "constant_column", "float32", "F", 177): "5259401e03bb2e37",
    (7, 70, "constant_column", "float64", "C", 178): "3ce892dbfe74e808",
    (7, 70, "constant_column", "float32", "F", 179): "09416b51e4316da6",
    (300, 70, "constant_column", "float64", "C", 180): "1b95d4611369c1a4",
    (300, 70, "constant_column", "float64", "F", 181): "f1abd04a3eb6371e",
    (300, 70, "constant_column", "float32", "C", 182): "2d5439c2cb19c0c5",
    (300, 70, "constant_column", "float32", "F", 183): "30c19696ab059ea3",
}


@pytest.mark.parametrize("case", list(CASES), ids=lambda c: "-".join(map(str, c)))
def test_the_trees_are_those_the_kernel_built_before(case):
    n, d, kind, dtype, layout, seed = case
    assert _tree_hash(_rows(n, d, kind, np.dtype(dtype), layout, seed), seed) == CASES[case]
