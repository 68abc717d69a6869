"""Numeric layer: compiled evaluators, vectorised root finding, grid tabulation."""
