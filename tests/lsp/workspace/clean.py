print("clean")
