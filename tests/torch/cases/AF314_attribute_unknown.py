# expect-before: UserWarning: volatile was removed \(Variable\.volatile is always False\)
# fixes: none
# AF314: `.volatile` of a parameter (the rule cannot tell it is a tensor: reported without a fix)
# and assigned (no effect, a UserWarning too). The 0.3 RNN code's `if input.volatile:` branch
# is dead since PyTorch 0.4.
import torch


def step(input):
    if input.volatile:
        return input * 0
    return input + 1


h = torch.ones(2)
h.volatile = True
print(step(h).tolist())
