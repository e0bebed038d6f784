"""Boutsidis, Zouzias, Mahoney, Drineas (2014): randomized dimensionality reduction for k-means.

The paper's curve claims and its sampling lemma checked on the data.
"""
