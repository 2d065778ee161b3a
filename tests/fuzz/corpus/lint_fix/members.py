class C:
    async = True
    def go(self):
        return self.async
print(C().async, C.async)
lambda async: async
[async for async in range(3)]
