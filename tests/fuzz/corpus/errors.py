@tack.kernel
def bad(a):
    for i in range(len(a)):
        y = a[1:3]
        x = [v for v in a]
        lambda q: q
