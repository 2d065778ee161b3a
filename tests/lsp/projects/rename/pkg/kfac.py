from .async import helper
import pkg.async


def run():
    return helper() + pkg.async.helper()
