int cpty_placeholder(void);
