s = 'é€中😀 async'
async = '😀'
print(async)  # é
