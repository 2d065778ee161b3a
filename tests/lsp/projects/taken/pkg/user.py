from .async import helper
