"""Boutsidis, Zouzias, Mahoney, Drineas (2014): randomized dimensionality reduction for k-means.

Its figure style (``bzmd14``), its curve claims, its theorems, and its sampling lemma checked on
the data (an experiment kind and a report subsection).
"""
