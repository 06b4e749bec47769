"""DC(D;ℓ): the most distinct items reachable when each person contributes at most ℓ items."""
