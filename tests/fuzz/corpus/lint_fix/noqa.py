async = 1  # noqa: AF001, AF101
x = 1  # noqa: AF002
# asyncfix: noqa: AF900
