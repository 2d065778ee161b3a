from ns.async import helper
