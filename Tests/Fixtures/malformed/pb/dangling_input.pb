

aRelumissing