import asyncio
from kombu.async import Hub
import pexpect
asyncio.async(coro())
c = pexpect.spawn('x')
c.expect('y', async=True)
