"""Matches between engines, tournaments, ratings and reports."""
