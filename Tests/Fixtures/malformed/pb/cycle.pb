

aRelub

bRelua