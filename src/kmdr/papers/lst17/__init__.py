"""Liu, Shen, Tsang (2017): sparse embedded k-means, a reduction in O(nnz(A)).

Its figure style (``lst17``), its claims checked against our results, and its Theorem 1.
"""
