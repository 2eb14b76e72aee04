/// Name pools the order generator draws from (customers, photographers, phone prefixes).
enum OrderNames {
    static let surnames: [String] = [
        "王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周", "徐", "孙", "马", "朱", "胡", "郭", "何", "高", "林", "罗",
        "郑", "梁", "谢", "宋", "唐", "许", "韩", "冯", "邓", "曹", "彭", "曾", "肖", "田", "董", "袁", "潘", "于", "蒋", "蔡",
    ]
    static let givenNames: [String] = [
        "伟", "芳", "娜", "敏", "静", "丽", "强", "磊", "军", "洋", "勇", "艳", "杰", "娟", "涛", "明", "超", "秀英", "霞", "平",
        "刚", "桂英", "婷", "雪", "欣怡", "子轩", "浩然", "雨涵", "梓涵", "一诺", "思远", "佳怡", "晨曦", "宇航", "梦琪", "俊杰",
        "嘉怡", "子涵", "若曦", "诗涵", "雅静", "天佑", "博文", "晓东", "海燕", "春花", "国强", "建华", "志明", "秀兰",
        "丹", "慧", "琳", "颖", "鹏", "飞", "宁", "倩", "阳", "凯",
    ]
    static let phonePrefixes: [String] = ["138", "139", "135", "136", "150", "151", "158", "186", "187", "188", "177", "199"]

    /// Photographers working in each scenic area (store and scenic orders name one of them).
    static let scenicPhotographers: [Int: [String]] = [
        1: ["林晓峰", "陈静怡", "周子墨", "吴思琪", "孙浩宇", "钱雅婷"],
        2: ["何嘉豪", "郑雨萱", "冯俊熙"],
        3: ["赵雨桐", "蒋文博", "沈佳琪", "韩立轩"],
    ]

    /// Package prices in cents: a photo set, a family set, a couple's set…
    static let packageCents: [Int] = [9900, 16800, 19900, 29900, 39900, 59900, 88800, 128800]
    static let depositCents: [Int] = [5000, 10000, 20000]
}
