public enum BookstoreServer {}
