"""Boutsidis, Mahoney, Drineas (2009): unsupervised feature selection for k-means.

Table 1 and Figure 1 against the published values (figure styles ``bmd09_table1`` and
``bmd09_fig1``, report sections ``table1`` and ``fig1``), its Theorem 1, and the leverage-scores
experiment kind.
"""
