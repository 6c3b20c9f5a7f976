"""Alubari: tea estates and the Darjeeling Himalayan Railway (Tony Boydell, 2019)."""
