"""Differentially private set union (partition selection) on a person–item graph."""
