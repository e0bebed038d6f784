"""Figures drawn from a results folder: one style per method, one figure per experiment."""
