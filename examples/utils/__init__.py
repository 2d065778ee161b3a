"""Data loading helpers for train_legacy.py."""
