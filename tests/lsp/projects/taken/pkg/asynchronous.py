def other():
    return 2
