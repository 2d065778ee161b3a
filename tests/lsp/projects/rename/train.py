from pkg.async import helper

print(helper())
