
:
xPlaceholder*
dtype0*
shape:

tÿRelux*
T0

tþSigmoidx*
T0

ySubtÿtþ*
T0"ª