"""Liu, Shen, Tsang (2017): sparse embedded k-means, a reduction in O(nnz(A)).

The paper's claims checked against our results.
"""
