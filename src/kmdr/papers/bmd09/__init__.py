"""Boutsidis, Mahoney, Drineas (2009): unsupervised feature selection for k-means.

Table 1 and Figure 1 against the published values, and the leverage-scores experiment kind.
"""
