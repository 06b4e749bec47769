"""Differentially private mechanisms over a :class:`dpcount.PersonItemGraph`."""

from mechanisms.accounting import PrivacyAccountant, PrivacyLoss

__all__ = ["PrivacyAccountant", "PrivacyLoss"]
